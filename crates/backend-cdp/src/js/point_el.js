function (x, y) {
  let d = document, ox = 0, oy = 0, e = null;
  for (;;) {
    e = d.elementFromPoint(x - ox, y - oy);
    let cd = null;
    if (e && (e.localName === 'iframe' || e.localName === 'frame')) { try { cd = e.contentDocument; } catch (err) { cd = null; } }
    if (!cd) return e;
    const r = e.getBoundingClientRect();
    ox += r.left + e.clientLeft; oy += r.top + e.clientTop; d = cd;
  }
}
function (x, y) {
  let d = document, ox = 0, oy = 0, e = null;
  for (;;) {
    e = d.elementFromPoint(x - ox, y - oy);
    if (e && (e.localName === 'iframe' || e.localName === 'frame') && e.contentDocument && e !== this) {
      const r = e.getBoundingClientRect();
      ox += r.left + e.clientLeft; oy += r.top + e.clientTop; d = e.contentDocument; continue;
    }
    break;
  }
  if (!e) return [false, 'nothing'];
  for (let n = e; n; n = n.parentNode || n.host || null) if (n === this) return [true, ''];
  let s = e.localName; if (e.id) s += '#' + e.id;
  return [false, s];
}
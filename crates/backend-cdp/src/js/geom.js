function () {
  const U = globalThis[Symbol.for('uidriver')];
  const w = this.ownerDocument.defaultView;
  let r = this.getBoundingClientRect();
  if (r.top < 0 || r.left < 0 || r.bottom > w.innerHeight || r.right > w.innerWidth) {
    this.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
  }
  const visible = this.checkVisibility({ visibilityProperty: true });
  const rects = this.getClientRects();
  r = this.getBoundingClientRect();
  for (const c of rects) { if (c.width > 1 && c.height > 1) { r = c; break; } }
  const [ox, oy] = U.frameOffset(this);
  const x = Math.min(Math.max(r.left + r.width / 2 + ox, 0), innerWidth - 1);
  const y = Math.min(Math.max(r.top + r.height / 2 + oy, 0), innerHeight - 1);
  return [x, y, visible && r.width > 0 && r.height > 0];
}
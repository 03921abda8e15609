function (scroll) {
  const w = this.ownerDocument.defaultView;
  let r = this.getBoundingClientRect();
  if (scroll && (r.top < 0 || r.left < 0 || r.bottom > w.innerHeight || r.right > w.innerWidth)) {
    this.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
    r = this.getBoundingClientRect();
  }
  const cs = w.getComputedStyle(this);
  const [ox, oy] = globalThis[Symbol.for('uidriver')].frameOffset(this);
  return [r.left + this.clientLeft + (parseFloat(cs.paddingLeft) || 0) + ox,
          r.top + this.clientTop + (parseFloat(cs.paddingTop) || 0) + oy];
}
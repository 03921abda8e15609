function () {
  const s = [];
  let n = this.nodeType === 1 ? this : this.parentElement;
  while (n) {
    s.push(Math.round(n.scrollTop), Math.round(n.scrollLeft));
    n = n.parentElement || n.ownerDocument.defaultView.frameElement;
  }
  s.push(Math.round(scrollX), Math.round(scrollY));
  return s.join(',');
}
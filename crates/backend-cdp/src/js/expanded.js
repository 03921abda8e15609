function () {
  const d = this.localName === 'details' ? this
    : (this.localName === 'summary' && this.parentElement && this.parentElement.localName === 'details' ? this.parentElement : null);
  if (d) return d.open;
  const a = this.getAttribute('aria-expanded');
  return a === null ? null : a === 'true';
}
function () {
  if (this.localName !== 'iframe' && this.localName !== 'frame') return false;
  try { return !this.contentDocument; } catch (e) { return true; }
}
function () {
  return this.localName === 'details' ? (this.querySelector(':scope > summary') || this) : this;
}
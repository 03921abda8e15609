function () {
  return this.getAttribute('aria-selected') === 'true' || this.getAttribute('aria-checked') === 'true';
}
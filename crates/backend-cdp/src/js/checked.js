function () {
  if (this.localName === 'input' && (this.type === 'checkbox' || this.type === 'radio')) return this.checked;
  const a = this.getAttribute('aria-checked') ?? this.getAttribute('aria-pressed');
  return a === null ? null : a === 'true';
}
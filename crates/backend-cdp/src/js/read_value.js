function () {
  if ('value' in this && (this.localName === 'input' || this.localName === 'textarea' || this.localName === 'select')) return String(this.value);
  return this.isContentEditable ? this.innerText : (this.textContent || '');
}
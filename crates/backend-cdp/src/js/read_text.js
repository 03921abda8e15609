function () {
  if (this.localName === 'input' && this.type === 'password') return this.value ? '••••' : '';
  if (this.localName === 'input' || this.localName === 'textarea') return String(this.value);
  return this.innerText || this.textContent || '';
}
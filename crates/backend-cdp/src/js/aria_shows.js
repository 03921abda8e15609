function (want) {
  if (this.getAttribute('role') !== 'combobox' && this.localName !== 'input') return false;
  const shown = ('value' in this && this.localName === 'input' ? this.value : this.textContent) || '';
  return shown.trim().toLowerCase() === want.trim().toLowerCase();
}
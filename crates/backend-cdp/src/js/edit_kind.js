function () {
  if (this.localName === 'textarea') return 'textarea';
  if (this.localName === 'input') {
    return ['checkbox', 'radio', 'range', 'color', 'file', 'submit', 'button', 'reset', 'image', 'hidden'].includes(this.type) ? 'no' : 'input';
  }
  return this.isContentEditable ? 'editable' : 'no';
}
function () {
  // The file input a setFiles step means: the element itself, the control of a label, or the
  // one file input inside the element (a drop zone wrapping a hidden input). Null otherwise:
  // then a press must open the chooser (a button whose handler calls input.click()).
  const isFile = (e) => e && e.localName === 'input' && e.type === 'file';
  if (isFile(this)) return this;
  if (this.localName === 'label' && isFile(this.control)) return this.control;
  const label = this.closest && this.closest('label');
  if (label && isFile(label.control)) return label.control;
  const inner = this.querySelectorAll ? this.querySelectorAll('input[type=file]') : [];
  return inner.length === 1 ? inner[0] : null;
}

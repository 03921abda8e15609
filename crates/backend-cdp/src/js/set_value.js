function (v) {
  const proto = this.localName === 'textarea' ? HTMLTextAreaElement.prototype
    : this.localName === 'select' ? HTMLSelectElement.prototype : HTMLInputElement.prototype;
  Object.getOwnPropertyDescriptor(proto, 'value').set.call(this, v);
  this.dispatchEvent(new Event('input', { bubbles: true }));
  this.dispatchEvent(new Event('change', { bubbles: true }));
  return String(this.value);
}
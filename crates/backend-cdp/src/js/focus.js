function () {
  this.focus();
  return globalThis[Symbol.for('uidriver')].deepFocus() === this;
}
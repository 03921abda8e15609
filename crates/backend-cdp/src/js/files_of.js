function () {
  // What the input holds now, read back after the files were set; `multiple` and `disabled`
  // are read before, so a second file on a single input is refused unsent.
  return {
    names: Array.from(this.files || [], (f) => f.name),
    multiple: !!this.multiple,
    disabled: !!this.disabled,
  };
}

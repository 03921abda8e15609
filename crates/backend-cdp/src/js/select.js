function (want) {
  const sel = this.localName === 'option' ? this.closest('select') : this;
  if (!sel || sel.localName !== 'select') return { err: 'not-select' };
  const w = want.trim(), wl = w.toLowerCase();
  const opts = Array.from(sel.options);
  const label = (o) => (o.label || o.text || '').trim();
  const o = opts.find((o) => o.value === w) || opts.find((o) => label(o) === w)
    || opts.find((o) => label(o).toLowerCase() === wl) || opts.find((o) => o.value.toLowerCase() === wl);
  if (!o) return { err: 'no-option', labels: opts.map(label) };
  if (o.disabled) return { err: 'disabled' };
  if (sel.multiple) o.selected = true; else sel.selectedIndex = o.index;
  sel.dispatchEvent(new Event('input', { bubbles: true }));
  sel.dispatchEvent(new Event('change', { bubbles: true }));
  return { ok: o.selected };
}
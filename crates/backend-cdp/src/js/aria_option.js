function (want) {
  const OPT = '[role=option],[role=tab],[role=radio],[role=menuitemradio],[role=menuitem],[role=treeitem]';
  const HOST = '[role=listbox],[role=tablist],[role=radiogroup],[role=menu],[role=menubar],[role=tree],[role=combobox]';
  const host = this.matches(OPT) ? (this.closest(HOST) || this.parentElement) : this;
  if (!host.matches(HOST)) return 'not-aria';
  const scopes = [host];
  for (const a of ['aria-controls', 'aria-owns']) {
    for (const id of (host.getAttribute(a) || '').split(/\s+/)) {
      const e = id && host.ownerDocument.getElementById(id);
      if (e) scopes.push(e);
    }
  }
  const opts = [];
  for (const s of scopes) for (const o of s.querySelectorAll(OPT)) if (!opts.includes(o)) opts.push(o);
  const label = (o) => (o.getAttribute('aria-label') || o.textContent || '').trim().replace(/\s+/g, ' ');
  const w = want.trim(), wl = w.toLowerCase();
  const o = opts.find((o) => label(o) === w) || opts.find((o) => label(o).toLowerCase() === wl)
    || opts.find((o) => (o.getAttribute('data-value') || o.id) === w);
  if (!o) return 'no-option:' + JSON.stringify(opts.map(label));
  if (o.getAttribute('aria-disabled') === 'true') return 'disabled';
  const r = o.getBoundingClientRect();
  if (!o.checkVisibility({ visibilityProperty: true }) || r.width === 0 || r.height === 0) {
    return host.matches('[role=combobox],[aria-haspopup]') ? 'closed' : 'hidden';
  }
  return o;
}
function (all) {
  this.focus();
  const doc = this.ownerDocument;
  const whole = () => { const s = doc.getSelection(); const r = doc.createRange(); r.selectNodeContents(this); if (!all) r.collapse(false); s.removeAllRanges(); s.addRange(r); };
  if (this.isContentEditable) { whole(); return true; }
  try {
    if (all) this.select(); else { const n = this.value.length; this.setSelectionRange(n, n); }
  } catch (e) { if (all && this.select) this.select(); }
  return true;
}
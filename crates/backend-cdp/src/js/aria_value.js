function () {
  if (!this.matches('[role=slider],[role=spinbutton],[role=scrollbar]')) return null;
  const n = (a) => { const v = parseFloat(this.getAttribute(a)); return Number.isFinite(v) ? v : null; };
  return { now: n('aria-valuenow'), min: n('aria-valuemin'), max: n('aria-valuemax') };
}
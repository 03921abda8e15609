function (types) {
  const K = Symbol.for('uidriver');
  const U = globalThis[K] || (globalThis[K] = {});
  if (U.probe) U.probe.off();
  const seen = {}, fns = [], tgt = this;
  for (const t of types) {
    const f = () => { seen[t] = (seen[t] || 0) + 1; };
    tgt.addEventListener(t, f, true);
    fns.push([t, f]);
  }
  U.probe = { seen, off: () => { for (const [t, f] of fns) tgt.removeEventListener(t, f, true); } };
  return true;
}
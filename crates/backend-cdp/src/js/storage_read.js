function () {
  // The local and session storage of this document's origin and of every same-origin frame
  // in it (a cross-origin frame's storage is not reachable from here and is left out).
  const out = [];
  const seen = new Set();
  const entries = (s) => {
    const items = [];
    for (let i = 0; i < s.length; i++) {
      const name = s.key(i);
      items.push({ name, value: s.getItem(name) });
    }
    return items;
  };
  const visit = (w) => {
    let origin;
    try {
      origin = w.location.origin;
    } catch (e) {
      return;
    }
    if (origin && origin !== 'null' && !seen.has(origin)) {
      seen.add(origin);
      try {
        out.push({ origin, localStorage: entries(w.localStorage), sessionStorage: entries(w.sessionStorage) });
      } catch (e) {
        // Storage denied (sandboxed frame, opaque origin): nothing to save.
      }
    }
    for (let i = 0; i < w.frames.length; i++) visit(w.frames[i]);
  };
  visit(window);
  return out;
}

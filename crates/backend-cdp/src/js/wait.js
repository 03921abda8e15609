function (ms) {
  return new Promise((resolve) => {
    const docs = [document];
    for (let i = 0; i < docs.length; i++) {
      for (const f of docs[i].querySelectorAll('iframe,frame')) {
        try { if (f.contentDocument) docs.push(f.contentDocument); } catch (e) {}
      }
    }
    const obs = [];
    const evs = ['input', 'change', 'scroll', 'toggle'];
    let done = false;
    const finish = (why) => {
      if (done) return;
      done = true;
      for (const o of obs) o.disconnect();
      for (const d of docs) for (const e of evs) d.removeEventListener(e, onEv, true);
      clearTimeout(timer);
      resolve(why);
    };
    const onEv = () => finish('event');
    for (const d of docs) {
      const o = new MutationObserver(() => finish('mutation'));
      o.observe(d, { subtree: true, childList: true, attributes: true, characterData: true });
      obs.push(o);
      for (const e of evs) d.addEventListener(e, onEv, true);
    }
    const timer = setTimeout(() => finish('timeout'), ms);
  });
}
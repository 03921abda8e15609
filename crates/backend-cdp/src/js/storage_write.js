function (origin) {
  // Loads one saved origin's storage into this document (opened at that origin by
  // storage.rs, its body answered without the network); returns how many items were set.
  let n = 0;
  for (const [area, items] of [[localStorage, origin.localStorage], [sessionStorage, origin.sessionStorage]]) {
    for (const { name, value } of items || []) {
      area.setItem(name, value);
      n++;
    }
  }
  return n;
}

/** `fn` remembered per argument object (for values derived from memoized, immutable objects). */
export function weakMemo<K extends object, V>(fn: (key: K) => V): (key: K) => V {
  const cache = new WeakMap<K, V>();
  return (key) => {
    if (cache.has(key)) return cache.get(key)!;
    const v = fn(key);
    cache.set(key, v);
    return v;
  };
}

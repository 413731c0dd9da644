/** Replaces `obj[key]` for one test; the returned function puts the original back. */
export function stubMethod<T extends object, K extends keyof T>(obj: T, key: K, impl: T[K]): () => void {
  const own = Object.prototype.hasOwnProperty.call(obj, key);
  const original = obj[key];
  obj[key] = impl;
  return () => {
    if (own) obj[key] = original;
    else Reflect.deleteProperty(obj, key);
  };
}

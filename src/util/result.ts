// Result<T, E>: explicit success/failure values for code that must not throw on bad input.
export type Ok<T> = { readonly ok: true; readonly value: T };
export type Err<E> = { readonly ok: false; readonly error: E };
export type Result<T, E> = Ok<T> | Err<E>;

export function ok<T>(value: T): Ok<T> {
  return { ok: true, value };
}

export function err<E>(error: E): Err<E> {
  return { ok: false, error };
}

/** Returns the value or throws the error wrapped in an Error; for tests and CLI boundaries only. */
export function unwrap<T, E>(r: Result<T, E>): T {
  if (r.ok) return r.value;
  const e = r.error as unknown;
  throw e instanceof Error ? e : new Error(typeof e === "string" ? e : JSON.stringify(e));
}

// Branded nominal types: numbers and strings that the type checker keeps apart.
declare const brandTag: unique symbol;
export type Brand<T, B extends string> = T & { readonly [brandTag]: B };

/** Interface index inside one network namespace (like the kernel's ifindex). */
export type IfIndex = Brand<number, "IfIndex">;
/** Security identity number (Cilium-style): a set of labels, or a reserved entity. */
export type Identity = Brand<number, "Identity">;
/** Simulated time in integer nanoseconds. */
export type SimTime = Brand<number, "SimTime">;

export const ifIndex = (n: number): IfIndex => n as IfIndex;
export const identity = (n: number): Identity => n as Identity;
export const simTime = (n: number): SimTime => n as SimTime;

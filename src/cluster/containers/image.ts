// Which program a container image runs, recognised from its repository name (registry and tag
// ignored): nginx serves HTTP on 80, CoreDNS answers DNS on 53, everything else (busybox, ubuntu,
// ...) runs no server and only the commands exec'd into it.

export const ImageKind = { NGINX: "nginx", COREDNS: "coredns", BUSYBOX: "busybox", OTHER: "other" } as const;
export type ImageKind = (typeof ImageKind)[keyof typeof ImageKind];

/** The last path segment of an image reference without tag or digest ("hub.x/library/nginx:1.27" -> "nginx"). */
export function imageName(image: string): string {
  const noDigest = image.split("@")[0]!;
  const last = noDigest.split("/").pop() ?? "";
  return last.split(":")[0]!.toLowerCase();
}

export function imageKind(image: string | undefined): ImageKind {
  const name = imageName(image ?? "");
  if (name === "nginx" || name.startsWith("nginx-")) return ImageKind.NGINX;
  if (name === "coredns") return ImageKind.COREDNS;
  if (name === "busybox") return ImageKind.BUSYBOX;
  return ImageKind.OTHER;
}

/** The C library of the image's tools: musl for busybox and Alpine-based images, glibc otherwise (Debian-based nginx). */
export function imageLibc(image: string | undefined): "musl" | "glibc" {
  const ref = (image ?? "").toLowerCase();
  return imageKind(image) === ImageKind.BUSYBOX || ref.includes("alpine") ? "musl" : "glibc";
}

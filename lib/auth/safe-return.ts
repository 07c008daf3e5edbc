/**
 * Where to go after sign-in: only a path of this app (no scheme, no host, no
 * protocol-relative `//evil`), else the fallback. Prevents open redirects
 * through `?callbackUrl=`.
 */
export function safeReturnPath(value: unknown, fallback = "/"): string {
  if (typeof value !== "string" || value.length === 0 || value.length > 2000) return fallback;
  let path = value;
  // Auth.js may hand back an absolute URL of this very app.
  if (/^https?:\/\//i.test(path)) {
    try {
      const u = new URL(path);
      path = u.pathname + u.search + u.hash;
    } catch {
      return fallback;
    }
  }
  if (!path.startsWith("/") || path.startsWith("//") || path.startsWith("/\\")) return fallback;
  if ([...path].some((ch) => ch.charCodeAt(0) < 0x20)) return fallback;
  if (path.startsWith("/login") || path.startsWith("/api/auth")) return fallback;
  return path;
}

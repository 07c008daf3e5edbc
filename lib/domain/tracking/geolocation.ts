import { isPublicIp, normalizeIp } from "../shared/client-ip";

/**
 * Offline geolocation (fast-geoip ships its database): City, Region and
 * Country of a public address; empty strings for private addresses and
 * anything unknown.
 */
export interface Geolocation {
  city: string;
  region: string;
  country: string;
}

const EMPTY: Geolocation = { city: "", region: "", country: "" };

type Lookup = (ip: string) => Promise<{ country?: string; region?: string; city?: string } | null>;
// eslint-disable-next-line no-restricted-syntax -- a memo of loaded code (fast-geoip), the same for every context
let lookupFn: Lookup | undefined;

export async function geolocate(ip: string): Promise<Geolocation> {
  if (!isPublicIp(ip)) return EMPTY;
  try {
    if (!lookupFn) {
      const mod = (await import("fast-geoip")) as unknown as { default?: { lookup: Lookup }; lookup?: Lookup };
      lookupFn = mod.lookup ?? mod.default!.lookup;
    }
    const r = await lookupFn(normalizeIp(ip));
    return r ? { city: r.city ?? "", region: r.region ?? "", country: r.country ?? "" } : EMPTY;
  } catch {
    return EMPTY;
  }
}

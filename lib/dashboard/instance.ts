import "server-only";
import { getServerContext } from "../runtime";

/** Facts about the running instance the pages show (no secrets). */
export function instanceInfo(): { sandbox: boolean; publicUrl: string } {
  const config = getServerContext().config;
  return { sandbox: config.delivery.mode === "sandbox", publicUrl: config.publicUrl };
}

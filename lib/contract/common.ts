import { z } from "zod";

/**
 * Building blocks shared by the wire schemas: address objects as clients send
 * them (docs/contract.md §2, liberal input).
 * Imports only zod.
 */

/** An address object as the spec writes it; `Name`/`Email` and a null or missing name are accepted too. */
export const addressObjectSchema = z
  .object({
    name: z.string().nullish().describe("Display name (optional)"),
    email: z.string().describe("Email address"),
  })
  .describe("Address object. Also accepted: `Name`/`Email` capitalised, or a plain string `a@b.test` / `Ann <a@b.test>`.");

/** What a client may send wherever an address goes. */
export const addressInputSchema = z.union([
  addressObjectSchema,
  z.object({ Name: z.string().nullish(), Email: z.string() }),
  z.string().describe('A plain address: "a@b.test" or "Ann <a@b.test>"'),
]);
export type AddressInput = z.infer<typeof addressInputSchema>;

/** An address as this server writes it. */
export const addressSchema = z.object({ name: z.string(), email: z.string() });
export type Address = z.infer<typeof addressSchema>;

/** `[name, email]`: the shape of addresses in an event record's Message.Headers. */
export const headerAddressSchema = z.tuple([z.string(), z.string()]);
export type HeaderAddress = z.infer<typeof headerAddressSchema>;

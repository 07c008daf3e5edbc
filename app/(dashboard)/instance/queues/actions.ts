"use server";

import { z } from "zod";
import { ownerAction } from "@/lib/dashboard/action";
import { bounceAsOwner, resumeAsOwner, retryNowAsOwner, suspendAsOwner } from "@/lib/dashboard/queues";

/** Instance → Queues (owners only): suspend, resume, retry now, bounce (docs/dashboard-admin.md, "Queues"). */

const key = z.string().trim().min(1, "Name a destination").max(1000, "At most 1000 characters");
const accountId = z
  .string()
  .trim()
  .max(36)
  .transform((v) => (v === "" ? undefined : v))
  .pipe(z.uuid("Not an account id").optional());

export const suspendDestinationAction = ownerAction(
  z.object({
    key,
    accountId: accountId.optional(),
    // Empty: until resumed.
    forMinutes: z
      .string()
      .trim()
      .max(7)
      .regex(/^\d*$/, "Minutes, a whole number, or empty for until resumed")
      .transform((v) => (v === "" || v === "0" ? undefined : Number(v)))
      .optional(),
    reason: z.string().trim().max(500, "At most 500 characters").default(""),
  }),
  (input, owner) => suspendAsOwner(owner, input),
);

export const resumeDestinationAction = ownerAction(z.object({ key, accountId: accountId.optional() }), (input, owner) => resumeAsOwner(owner, input));

export const retryDestinationNowAction = ownerAction(z.object({ key }), (input, owner) => retryNowAsOwner(owner, input));

export const bounceDestinationAction = ownerAction(
  z.object({ key, reason: z.string().trim().min(1, "Say why").max(500, "At most 500 characters") }),
  (input, owner) => bounceAsOwner(owner, input),
);

import type { ApiErrorItem } from "@/lib/contract/errors";
import { listEntries, type AddressListKey, type Draft, type FieldErrors } from "./draft";

/**
 * Puts the API's errors (its `Field` paths index the request, where blank
 * rows of the form are already dropped) back onto the form's fields. What
 * names no field (suppression, quota, rate) goes under `_form`.
 */
export function mapApiErrors(items: ApiErrorItem[], draft: Draft): FieldErrors {
  const errors: FieldErrors = {};
  const put = (key: string, message: string) => {
    errors[key] = errors[key] ? `${errors[key]}; ${message}` : message;
  };
  for (const item of items) {
    const text = explain(item, draft);
    const field = item.Field;
    if (!field) {
      put("_form", text);
      continue;
    }
    const list = /^(To|CC|BCC|ReplyTo)\[(\d+)\](.*)$/.exec(field);
    if (list) {
      const key = list[1] as AddressListKey;
      const rows = listEntries(draft[listProp(key)]);
      const formIndex = rows[Number(list[2])]?.index ?? Number(list[2]);
      put(`${key}[${formIndex}]${list[3] || ".email"}`, text);
      continue;
    }
    const attachment = /^Attachments\[(\d+)\]/.exec(field);
    if (attachment) {
      put(`Attachments[${attachment[1]}]`, text);
      continue;
    }
    if (field.startsWith("Headers.")) {
      const name = field.slice("Headers.".length).toLowerCase();
      const index = draft.headers.findIndex((h) => h.name.trim().toLowerCase() === name);
      put(index >= 0 ? `Headers[${index}]` : "Headers", text);
      continue;
    }
    if (field === "From" || field === "From.email" || field === "From.name") {
      put(field, text);
      continue;
    }
    if (field === "ContentType" || field === "PlainContent") {
      put(field === "PlainContent" ? "PlainContent" : "HTMLContent", text);
      continue;
    }
    put(field, text);
  }
  return errors;
}

function listProp(key: AddressListKey): "to" | "cc" | "bcc" | "replyTo" {
  return key === "To" ? "to" : key === "CC" ? "cc" : key === "BCC" ? "bcc" : "replyTo";
}

/** The API's message, with what to do about it where the code says enough. */
export function explain(item: ApiErrorItem, draft: Draft): string {
  const code = `(code ${item.Code})`;
  switch (item.Code) {
    case 32:
      return `${item.Message} ${code}: ${draft.from.domain || "this domain"} is not a verified sender domain of this account. Verify it in Settings → Sender domains, or choose a verified one.`;
    case 14:
      return `${item.Message} ${code}: every recipient is on the suppression list (Settings → Suppression list).`;
    case 17:
      return `${item.Message} ${code}: the account's daily quota is used up; try again tomorrow (UTC).`;
    case 429:
      return `${item.Message} ${code}: the sending rate limit was reached; wait a minute and send again.`;
    case 422:
      return item.Field
        ? `${item.Message} ${code}`
        : `${item.Message} ${code}: the request was refused as a whole, most often because bodies and attachments exceed 10 MB.`;
    default:
      return `${item.Message} ${code}`;
  }
}

"use client";

import { Button } from "@/components/ui/button";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { Field, Input } from "@/components/ui/input";
import { MAX_TAGS, TRACKING_HEADER } from "@/lib/contract/email";
import { parseTags, type Draft, type FieldErrors } from "../_lib/draft";
import { addHeader, editHeader, removeHeader, type SetDraftField } from "../_lib/draft-edits";

/** Tags (with their count) and custom header rows. */
export function TagsAndHeadersCard({ draft, errors, set }: { draft: Draft; errors: FieldErrors; set: SetDraftField }) {
  const tags = parseTags(draft.tags);
  return (
    <Card>
      <CardHeader title="Tags and headers" />
      <CardBody className="grid grid-cols-1 gap-4 lg:grid-cols-2">
        <Field id="tags" label={`Tags (${tags.length} / ${MAX_TAGS})`} hint="Comma-separated, e.g. welcome, onboarding" error={errors.Tags}>
          <Input id="tags" value={draft.tags} onChange={(e) => set("tags", e.target.value)} aria-invalid={Boolean(errors.Tags)} aria-describedby={errors.Tags ? "tags-error" : "tags-hint"} />
        </Field>
        <fieldset className="flex flex-col gap-2">
          <legend className="text-sm font-medium">Custom headers</legend>
          {draft.headers.map((h, i) => (
            <div key={i} className="flex flex-col gap-1">
              <div className="grid grid-cols-[2fr_3fr_auto] gap-2">
                <Input
                  aria-label={`Header ${i + 1} name`}
                  placeholder="X-Campaign"
                  value={h.name}
                  className="font-mono"
                  aria-invalid={Boolean(errors[`Headers[${i}]`])}
                  onChange={(e) => set("headers", editHeader(draft.headers, i, { name: e.target.value }))}
                />
                <Input aria-label={`Header ${i + 1} value`} placeholder="value" value={h.value} onChange={(e) => set("headers", editHeader(draft.headers, i, { value: e.target.value }))} />
                <Button variant="ghost" aria-label={`Remove header ${i + 1}`} onClick={() => set("headers", removeHeader(draft.headers, i))}>
                  ✕
                </Button>
              </div>
              {errors[`Headers[${i}]`] && <p className="text-xs font-medium text-red-700 dark:text-red-400">{errors[`Headers[${i}]`]}</p>}
            </div>
          ))}
          <div>
            <Button variant="ghost" size="sm" onClick={() => set("headers", addHeader(draft.headers))}>
              + Add header
            </Button>
          </div>
          <p className="text-xs text-slate-600 dark:text-slate-400">
            <code>{TRACKING_HEADER}: none|opens|clicks|all</code> turns tracking off or on for this message.
          </p>
        </fieldset>
      </CardBody>
    </Card>
  );
}

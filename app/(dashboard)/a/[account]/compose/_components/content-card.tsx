"use client";

import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { cn } from "@/components/ui/cn";
import { Field, fieldClass, Input, Select } from "@/components/ui/input";
import type { Draft, FieldErrors } from "../_lib/draft";
import type { SetDraftField } from "../_lib/draft-edits";
import type { AttachmentItem } from "./attachments";
import { HtmlPreview } from "./html-preview";

export type BodyTab = "html" | "text";

const BODY_TABS = [
  ["html", "HTML body"],
  ["text", "Plain-text body"],
] as const;

/** The subject and the two bodies (HTML with its sandboxed preview, plain text), optionally started from a template. */
export function ContentCard({
  templates,
  templateError,
  onTemplate,
  bodyTab,
  onBodyTab,
  inline,
  draft,
  errors,
  set,
}: {
  templates: { id: number; name: string }[];
  templateError: string | null;
  onTemplate: (id: number) => void;
  bodyTab: BodyTab;
  onBodyTab: (tab: BodyTab) => void;
  /** The attachments, whose inline images the preview shows. */
  inline: AttachmentItem[];
  draft: Draft;
  errors: FieldErrors;
  set: SetDraftField;
}) {
  return (
    <Card>
      <CardHeader title="Content" />
      {templates.length > 0 && <TemplatePicker templates={templates} error={templateError} onPick={onTemplate} />}
      <CardBody className="flex flex-col gap-4">
        <Field id="subject" label="Subject" error={errors.Subject}>
          <Input
            id="subject"
            value={draft.subject}
            aria-invalid={Boolean(errors.Subject)}
            aria-describedby={errors.Subject ? "subject-error" : undefined}
            onChange={(e) => set("subject", e.target.value)}
          />
        </Field>
        <BodyTabs tab={bodyTab} onTab={onBodyTab} draft={draft} />
        <div id="panel-html" role="tabpanel" aria-labelledby="tab-html" hidden={bodyTab !== "html"} className="grid grid-cols-1 gap-3 lg:grid-cols-2">
          <div className="flex flex-col gap-1">
            <label htmlFor="html-body" className="text-sm font-medium">
              HTML
            </label>
            <textarea
              id="html-body"
              value={draft.html}
              onChange={(e) => set("html", e.target.value)}
              spellCheck={false}
              aria-invalid={Boolean(errors.HTMLContent)}
              className={cn(fieldClass, "h-80 py-2 font-mono text-xs")}
              placeholder="<p>Hello!</p>"
            />
          </div>
          <div className="flex flex-col gap-1">
            <span className="text-sm font-medium">Preview (sandboxed: no scripts, no remote images)</span>
            <HtmlPreview html={draft.html} inline={inline} />
          </div>
        </div>
        <div id="panel-text" role="tabpanel" aria-labelledby="tab-text" hidden={bodyTab !== "text"}>
          <label htmlFor="text-body" className="text-sm font-medium">
            Plain text
          </label>
          <textarea
            id="text-body"
            value={draft.text}
            onChange={(e) => set("text", e.target.value)}
            aria-invalid={Boolean(errors.PlainContent)}
            className={cn(fieldClass, "mt-1 h-80 py-2 font-mono text-xs")}
            placeholder="Hello!"
          />
        </div>
        {(errors.HTMLContent || errors.PlainContent) && (
          <p role="alert" className="text-xs font-medium text-red-700 dark:text-red-400">
            {errors.HTMLContent ?? errors.PlainContent}
          </p>
        )}
        <p className="text-xs text-slate-600 dark:text-slate-400">Both bodies is best: the message is sent as multipart/alternative.</p>
      </CardBody>
    </Card>
  );
}

function TemplatePicker({ templates, error, onPick }: { templates: { id: number; name: string }[]; error: string | null; onPick: (id: number) => void }) {
  return (
    <div className="px-4 pt-3">
      <Field id="start-template" label="Start from a template" error={error ?? undefined} hint="Fills the subject and bodies with the template's latest version, variables as written">
        <Select
          id="start-template"
          defaultValue=""
          onChange={(e) => {
            const id = Number(e.target.value);
            if (id) onPick(id);
          }}
        >
          <option value="">(none)</option>
          {templates.map((t) => (
            <option key={t.id} value={t.id}>
              {t.name} (#{t.id})
            </option>
          ))}
        </Select>
      </Field>
    </div>
  );
}

/** The tabs between the two bodies; a dot marks a body that has content. */
function BodyTabs({ tab: current, onTab, draft }: { tab: BodyTab; onTab: (tab: BodyTab) => void; draft: Draft }) {
  return (
    <div role="tablist" aria-label="Body" className="flex gap-1 border-b border-slate-200 dark:border-slate-800">
      {BODY_TABS.map(([tab, text]) => (
        <button
          key={tab}
          type="button"
          role="tab"
          id={`tab-${tab}`}
          aria-selected={current === tab}
          aria-controls={`panel-${tab}`}
          onClick={() => onTab(tab)}
          className={cn(
            "-mb-px border-b-2 px-3 py-2 text-sm font-medium",
            current === tab ? "border-brand-600 text-brand-700 dark:text-brand-100" : "border-transparent text-slate-600 dark:text-slate-400",
          )}
        >
          {text}
          {(tab === "html" ? draft.html : draft.text).trim() && <span aria-label="(has content)"> ●</span>}
        </button>
      ))}
    </div>
  );
}

"use client";

import { cn } from "@/components/ui/cn";
import { Field, fieldClass, Input } from "@/components/ui/input";

/** Name, Subject, HTML and plain text of a template version, as the editor and the new-template form edit them. */
export interface TemplateDraft {
  Name: string;
  Subject: string;
  HTMLContent: string;
  PlainContent: string;
}

export function TemplateFields({
  draft,
  onChange,
  errors,
}: {
  draft: TemplateDraft;
  onChange: (draft: TemplateDraft) => void;
  errors: Record<string, string>;
}) {
  const set = (key: keyof TemplateDraft) => (e: { target: { value: string } }) => onChange({ ...draft, [key]: e.target.value });
  return (
    <div className="flex flex-col gap-3">
      <div className="grid grid-cols-1 gap-3 md:grid-cols-2">
        <Field id="template-name" label="Name" error={errors.Name}>
          <Input id="template-name" value={draft.Name} onChange={set("Name")} maxLength={200} aria-invalid={Boolean(errors.Name)} />
        </Field>
        <Field id="template-subject" label="Subject" error={errors.Subject} hint="Text: {{name}} is inserted as typed">
          <Input id="template-subject" value={draft.Subject} onChange={set("Subject")} aria-invalid={Boolean(errors.Subject)} placeholder="Your receipt {{order}}" />
        </Field>
      </div>
      <Field id="template-html" label="HTML" error={errors.HTMLContent} hint="{{name}} is HTML-escaped; {{{name}}} is inserted as HTML; {{#list}}…{{/list}} repeats">
        <textarea
          id="template-html"
          value={draft.HTMLContent}
          onChange={set("HTMLContent")}
          spellCheck={false}
          aria-invalid={Boolean(errors.HTMLContent)}
          className={cn(fieldClass, "h-56 py-2 font-mono text-xs")}
          placeholder="<p>Hello {{name}}</p>"
        />
      </Field>
      <Field id="template-text" label="Plain text" error={errors.PlainContent}>
        <textarea
          id="template-text"
          value={draft.PlainContent}
          onChange={set("PlainContent")}
          spellCheck={false}
          aria-invalid={Boolean(errors.PlainContent)}
          className={cn(fieldClass, "h-32 py-2 font-mono text-xs")}
          placeholder="Hello {{name}}"
        />
      </Field>
    </div>
  );
}

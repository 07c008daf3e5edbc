import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { emailRequestSchema, MAX_BCC, MAX_CC, MAX_CUSTOM_HEADERS, MAX_REPLY_TO, MAX_SUBJECT_LENGTH, MAX_TAG_LENGTH, MAX_TO } from "@/lib/contract/email";
import { MAX_LINE_LENGTH } from "@/lib/contract/text";
// eslint-disable-next-line no-restricted-imports -- this test holds the form to the API's own validator; the form itself never imports it
import { validateEmailRequest } from "@/lib/domain/sending/email-request/validate";
import { emptyDraft, toEmailRequest, validateDraft, type Draft, type DraftAddress } from "./draft";

/**
 * The compose form and POST /email accept and refuse the same drafts
 * (docs/contract.md §5, the API's validator being the reference): what the
 * form lets through (validateDraft, then the contract's schema, as the send
 * route does) the API accepts, and what the form refuses the API refuses.
 * Drafts are generated around every limit the form can reach, with
 * astral-plane characters (two UTF-16 units, one character), combining marks,
 * control characters, NULs and broken surrogate pairs. Attachments are left
 * out: their bytes never pass through the form's checks.
 */

/** The form's verdict, as the send route reaches it: its own checks, then the contract's schema. */
function formAccepts(draft: Draft): { ok: boolean; errors: unknown } {
  const errors = validateDraft(draft);
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  const parsed = emailRequestSchema.safeParse(toEmailRequest(draft, []));
  return parsed.success ? { ok: true, errors: {} } : { ok: false, errors: parsed.error.issues };
}

/** The API's verdict on the body the form would send (through JSON, as it travels). */
function apiAccepts(draft: Draft): { ok: boolean; errors: unknown } {
  const result = validateEmailRequest(JSON.parse(JSON.stringify(toEmailRequest(draft, []))));
  return result.ok ? { ok: true, errors: [] } : { ok: false, errors: result.errors };
}

function expectAgreement(draft: Draft) {
  const form = formAccepts(draft);
  const api = apiAccepts(draft);
  if (form.ok !== api.ok) {
    throw new Error(`form ${form.ok ? "accepts" : "refuses"}, API ${api.ok ? "accepts" : "refuses"}: ${JSON.stringify({ draft, form: form.errors, api: api.errors }).slice(0, 4000)}`);
  }
}

// One code point each, except the combining pair; "\ud83d" and "\ude00" are halves of 😀.
const PIECES = ["a", "Z", "0", " ", "😀", "𝒜", "e\u0301", "\u0301", "字", "ü", "-", ".", "@", ",", "<", '"', "\t", "\n", "\r", "\u0000", "\u007f", "\u0085", "\u2028", "\ud83d", "\ude00"];
const piece = fc.constantFrom(...PIECES);
const freeText = fc.array(piece, { maxLength: 12 }).map((a) => a.join(""));

/** Text of about `max` characters: one repeated unit (ASCII, astral, CJK, a lone combining mark) with a tail. */
function around(max: number, units: string[] = ["a", "😀", "字", "\u0301", "e\u0301"]) {
  return fc
    .tuple(fc.constantFrom(...units), fc.integer({ min: -3, max: 3 }), fc.constantFrom("", "a", "😀", " ", "\ud83d", "\u0000"), fc.boolean())
    .map(([unit, delta, tail, lead]) => {
      const codePointsOfUnit = [...unit].length;
      const body = unit.repeat(Math.max(0, Math.ceil((max + delta) / codePointsOfUnit)));
      return lead ? ` ${body}${tail}` : `${body}${tail}`;
    });
}
const text = (max: number) => fc.oneof(freeText, around(max));

// Email addresses: atoms near the 64-octet local part, labels near 63, totals near 254.
const localPart = fc.oneof(
  fc.constantFrom("ann", "a.b", "a+tag", "ü", "😀", "字", "a..b", ".a", "a.", "a b", '"a"', "a(c)", "", "ann\u0000", "a\ud83d", "e\u0301"),
  fc.integer({ min: 62, max: 66 }).map((n) => "a".repeat(n)),
  fc.integer({ min: 30, max: 34 }).map((n) => "ü".repeat(n)),
  fc.integer({ min: 15, max: 17 }).map((n) => "😀".repeat(n)),
  fc.array(piece, { minLength: 1, maxLength: 6 }).map((a) => a.join("")),
);
const domain = fc.oneof(
  fc.constantFrom("example.test", "b.c", "bücher.test", "xn--bcher-kva.test", "字.test", "e\u0301.test", "\u0301a.test", "a..b", "-a.test", "a-.test", "test", ".test", "a.test.", "a_b.test", "😀.test"),
  fc.integer({ min: 61, max: 65 }).map((n) => `${"a".repeat(n)}.test`),
  // 64 + 1 + 189 = 254 octets with k = 0.
  fc.integer({ min: -2, max: 2 }).map((k) => `${"b".repeat(62)}.${"c".repeat(62)}.${"d".repeat(58 + k)}.test`),
);
const email = fc.oneof(
  fc.tuple(localPart, domain).map(([l, d]) => `${l}@${d}`),
  fc.tuple(localPart, domain, fc.constantFrom(" ", "  ", "\t")).map(([l, d, s]) => `${s}${l}@${d}${s}`),
  fc.constantFrom("", " ", "ann", "a@b@c.test", "@b.test", "Ann <ann@example.test>", "ann@example.test, bob@example.test"),
);
const name = fc.oneof(
  fc.constant(""),
  freeText,
  around(MAX_LINE_LENGTH, ["a", "😀", " "]),
  fc.integer({ min: -2, max: 2 }).map((d) => `Ann${" ".repeat(MAX_LINE_LENGTH + d)}`),
);
const address: fc.Arbitrary<DraftAddress> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ name, email }) },
  { weight: 1, arbitrary: fc.constant({ name: "", email: "" }) },
  { weight: 1, arbitrary: fc.record({ name: fc.constantFrom(" ", "Ann"), email: fc.constantFrom("", " ") }) },
);
const list = (limit: number) => fc.array(address, { maxLength: limit + 2 });

const headerName = fc.oneof(
  fc.constantFrom("X-Custom", "X-Mailroom-Track", "x-mailroom-track", "Subject", "Content-Type", "Resent-From", "Sender", "List-Id", "X Bad", "X:Bad", "X-Ü", " X-Padded ", "X-😀"),
  fc.integer({ min: -2, max: 2 }).map((d) => `X-${"a".repeat(MAX_LINE_LENGTH - 2 + d)}`),
);
const headerValue = fc.oneof(
  fc.constantFrom("opens", " ALL ", "clicks", "none", "bogus", ""),
  freeText,
  around(MAX_LINE_LENGTH, ["a", "😀", "\u0301"]),
);
const headerRows = fc.oneof(
  fc.dictionary(headerName, headerValue, { maxKeys: 4 }).map((map) => Object.entries(map).map(([n, value]) => ({ name: n, value }))),
  // A full map, one over, one under.
  fc.integer({ min: MAX_CUSTOM_HEADERS - 2, max: MAX_CUSTOM_HEADERS + 2 }).map((n) => Array.from({ length: n }, (_, i) => ({ name: `X-H${i}`, value: "v" }))),
);
const tags = fc.oneof(
  fc.array(fc.oneof(freeText, around(MAX_TAG_LENGTH)), { maxLength: 12 }).map((t) => t.join(",")),
  fc.constant(""),
);
const bodyText = fc.oneof(fc.constantFrom("", "  ", "<p>Hello</p>", "Hello"), freeText);

const draft: fc.Arbitrary<Draft> = fc.record({
  from: fc.record({ local: localPart, domain, name }),
  to: list(MAX_TO),
  cc: list(MAX_CC),
  bcc: list(MAX_BCC),
  replyTo: list(MAX_REPLY_TO),
  subject: text(MAX_SUBJECT_LENGTH),
  html: bodyText,
  text: bodyText,
  tags,
  headers: headerRows,
  attachments: fc.constant([]),
});

/** A draft the API accepts, changed in one field only. */
function valid(change: Partial<Draft> = {}): Draft {
  return { ...emptyDraft("example.test"), from: { local: "ann", domain: "example.test", name: "" }, to: [{ name: "", email: "bob@example.test" }], subject: "Hello", text: "Hi", ...change };
}

describe("the compose form and POST /email agree", () => {
  it("on a subject of 600 emoji (600 characters, 1200 UTF-16 units): both accept", () => {
    expect(formAccepts(valid({ subject: "😀".repeat(600) })).ok).toBe(true);
    expect(apiAccepts(valid({ subject: "😀".repeat(600) })).ok).toBe(true);
  });

  it("on subjects and tags at their limits, counted in characters", () => {
    for (const [subject, ok] of [
      ["😀".repeat(MAX_SUBJECT_LENGTH), true],
      ["😀".repeat(MAX_SUBJECT_LENGTH + 1), false],
      ["e\u0301".repeat(MAX_SUBJECT_LENGTH / 2), true],
      [`${"e\u0301".repeat(MAX_SUBJECT_LENGTH / 2)}a`, false],
    ] as const) {
      expect(formAccepts(valid({ subject })).ok).toBe(ok);
      expect(apiAccepts(valid({ subject })).ok).toBe(ok);
    }
    expect(formAccepts(valid({ tags: "😀".repeat(MAX_TAG_LENGTH) })).ok).toBe(true);
    expect(formAccepts(valid({ tags: "😀".repeat(MAX_TAG_LENGTH + 1) })).ok).toBe(false);
  });

  it("on drafts generated around every limit", () => {
    fc.assert(fc.property(draft, expectAgreement), { numRuns: 400 });
  });

  it("on drafts that differ from a valid one in a single field", () => {
    const oneField = fc.oneof(
      fc.record({ local: localPart, domain, name }).map((from) => valid({ from })),
      fc.tuple(address, list(MAX_TO)).map(([first, rest]) => valid({ to: [first, ...rest] })),
      list(MAX_CC).map((cc) => valid({ cc })),
      list(MAX_BCC).map((bcc) => valid({ bcc })),
      list(MAX_REPLY_TO).map((replyTo) => valid({ replyTo })),
      text(MAX_SUBJECT_LENGTH).map((subject) => valid({ subject })),
      fc.tuple(bodyText, bodyText).map(([html, t]) => valid({ html, text: t })),
      tags.map((t) => valid({ tags: t })),
      headerRows.map((headers) => valid({ headers })),
    );
    fc.assert(fc.property(oneField, expectAgreement), { numRuns: 1500 });
  });
});

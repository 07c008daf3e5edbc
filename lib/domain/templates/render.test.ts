import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { FULL_BUDGET, renderTemplate, SMALL_BUDGET, unparsablePart, type TemplateParts } from "./render";

async function rendered(parts: TemplateParts, model: unknown): Promise<TemplateParts> {
  const outcome = await renderTemplate(parts, model, "acct");
  if (!outcome.ok) throw new Error(`not rendered: ${JSON.stringify(outcome)}`);
  return outcome.rendered;
}

describe("renderTemplate", () => {
  it("escapes {{name}} in the HTML only: a <script> in a variable stays text there, and as typed in the subject and the plain text", async () => {
    const out = await rendered(
      { subject: "Hello {{name}}", html: "<p>Hello {{name}}</p>", text: "Hello {{name}}" },
      { name: "<script>alert('x')</script> & <b>Ann</b>" },
    );
    expect(out.html).toBe("<p>Hello &lt;script&gt;alert(&#39;x&#39;)&lt;&#x2F;script&gt; &amp; &lt;b&gt;Ann&lt;&#x2F;b&gt;</p>");
    expect(out.subject).toBe("Hello <script>alert('x')</script> & <b>Ann</b>");
    expect(out.text).toBe("Hello <script>alert('x')</script> & <b>Ann</b>");
  });

  it("triple mustache (and {{& name}}) inserts HTML as it is", async () => {
    const out = await rendered({ subject: "s", html: "<div>{{{block}}}|{{& block}}</div>" }, { block: "<b>bold</b>" });
    expect(out.html).toBe("<div><b>bold</b>|<b>bold</b></div>");
  });

  it("renders a missing variable empty, including names of JavaScript's own object members", async () => {
    const out = await rendered(
      { subject: "[{{missing}}][{{a.b.c}}]", text: "[{{constructor}}][{{toString}}][{{__proto__}}][{{hasOwnProperty}}][{{#constructor}}x{{/constructor}}]" },
      { a: {} },
    );
    expect(out.subject).toBe("[][]");
    expect(out.text).toBe("[][][][][]");
  });

  it("renders sections over lists and objects, and inverted sections when a value is missing, false or empty", async () => {
    const parts = {
      subject: "{{#order}}Order {{id}}{{/order}}",
      html: "<ul>{{#items}}<li>{{name}} × {{qty}}</li>{{/items}}</ul>{{^items}}<p>No items</p>{{/items}}",
      text: "{{#vip}}VIP {{/vip}}{{^vip}}Regular {{/vip}}{{#tags}}{{.}},{{/tags}}",
    };
    const full = await rendered(parts, { order: { id: 42 }, items: [{ name: "Tea", qty: 2 }, { name: "<Cake>", qty: 1 }], vip: true, tags: ["a", "b"] });
    expect(full).toEqual({ subject: "Order 42", html: "<ul><li>Tea × 2</li><li>&lt;Cake&gt; × 1</li></ul>", text: "VIP a,b," });
    const empty = await rendered(parts, { items: [], vip: false });
    expect(empty).toEqual({ subject: "", html: "<ul></ul><p>No items</p>", text: "Regular " });
  });

  it("renders an object or a list named as a value empty, numbers and booleans as text", async () => {
    const out = await rendered({ subject: "[{{obj}}][{{list}}][{{n}}][{{t}}]" }, { obj: { x: 1 }, list: [1, 2], n: 1.5, t: true });
    expect(out.subject).toBe("[][][1.5][true]");
    expect(out.html).toBeUndefined();
  });

  it("renders a template kept parsed (the second time) exactly as the first, with each model", async () => {
    const parts = { subject: "Order {{id}}", html: "<p>{{#items}}[{{.}}]{{/items}}{{^items}}none{{/items}}</p>" };
    expect(await rendered(parts, { id: 1, items: ["a"] })).toEqual({ subject: "Order 1", html: "<p>[a]</p>" });
    expect(await rendered(parts, { id: 2 })).toEqual({ subject: "Order 2", html: "<p>none</p>" });
    expect(await rendered(parts, { id: 3, items: ["<b>", "c"] })).toEqual({ subject: "Order 3", html: "<p>[&lt;b&gt;][c]</p>" });
  });

  it("names the part Mustache cannot parse", async () => {
    expect(await unparsablePart({ subject: "ok", html: "<p>{{#open}}</p>", text: "fine" }, "acct")).toBe("html");
    expect(await unparsablePart({ subject: "{{unclosed", text: "fine" }, "acct")).toBe("subject");
    expect(await unparsablePart({ subject: "ok", text: "{{#a}}{{/a}}" }, "acct")).toBeUndefined();
  });

  it("stops nested sections that multiply the work, and output past the largest message", async () => {
    const nested = await renderTemplate({ subject: "s", text: "{{#a}}{{#a}}{{#a}}{{#a}}x{{/a}}{{/a}}{{/a}}{{/a}}" }, { a: Array.from({ length: 200 }, () => 1) }, "acct");
    expect(nested).toEqual({ ok: false, reason: "steps" });
    const wide = await renderTemplate({ subject: "s", text: "{{#a}}{{big}}{{/a}}" }, { big: "x".repeat(100_000), a: Array.from({ length: 200 }, () => 1) }, "acct");
    expect(wide).toEqual({ ok: false, reason: "output" });
  }, 60_000);

  it("renders a 1 MB template with a 10,000-item section on a worker, the same as a small one renders here", async () => {
    const items = Array.from({ length: 10_000 }, (_, i) => ({ name: `<n${i}>` }));
    const filler = "<p>Terms and conditions.</p>\n".repeat(36_000);
    const out = await rendered({ subject: "Receipt {{id}}", html: `${filler}<ul>{{#items}}<li>{{name}}</li>{{/items}}</ul>`, text: "{{#items}}{{name}}\n{{/items}}" }, { id: 7, items });
    expect(out.subject).toBe("Receipt 7");
    expect(out.html!.startsWith(filler)).toBe(true);
    expect(out.html!.endsWith("<li>&lt;n9999&gt;</li></ul>")).toBe(true);
    expect(out.text!.split("\n")).toHaveLength(10_001);
  }, 120_000);
});

describe("the step budget fits a real template (docs/adr/0122)", () => {
  /** A receipt: 50 line items, each with a nested list of options and an optional discount, in HTML and text. */
  const items = Array.from({ length: 50 }, (_, i) => ({
    name: `Item ${i}`,
    sku: `SKU-${i}`,
    qty: 2,
    price: "9.99",
    total: "19.98",
    options: [
      { label: "Size", value: "M" },
      { label: "Colour", value: "Blue" },
    ],
    discount: i % 5 === 0 ? { label: "10% off", amount: "2.00" } : null,
  }));
  const model = {
    customer: { name: "Ann", email: "ann@example.com", address: { line1: "1 Road", city: "Town", zip: "12345" } },
    order: { id: "A-1", date: "2024-01-01", subtotal: "999.00", tax: "80.00", total: "1079.00" },
    items,
    payments: [{ method: "card", last4: "4242", amount: "1079.00" }],
    notes: ["Thank you", "See you soon"],
    vip: true,
  };
  const row =
    "<tr><td>{{name}}</td><td>{{sku}}</td><td>{{qty}}</td><td>{{price}}</td><td>{{total}}</td>" +
    "<td>{{#options}}<span>{{label}}: {{value}}</span>{{/options}}</td>" +
    "{{#discount}}<td>{{label}} -{{amount}}</td>{{/discount}}{{^discount}}<td></td>{{/discount}}</tr>\n";
  const receipt: TemplateParts = {
    subject: "Receipt {{order.id}} for {{customer.name}}",
    html:
      `<html><head><style>${"td { padding: 4px }\n".repeat(100)}</style></head><body><h1>Receipt {{order.id}}</h1>` +
      "<p>Hello {{customer.name}} ({{customer.email}})</p>{{#customer.address}}<p>{{line1}}, {{city}} {{zip}}</p>{{/customer.address}}" +
      `{{#vip}}<p>Thank you for being a member</p>{{/vip}}<table>{{#items}}${row}{{/items}}</table>` +
      "{{#payments}}<p>{{method}} {{last4}} {{amount}}</p>{{/payments}}{{#notes}}<p>{{.}}</p>{{/notes}}" +
      "<p>Subtotal {{order.subtotal}} Tax {{order.tax}} Total {{order.total}}</p></body></html>",
    text:
      "Receipt {{order.id}}\n{{#items}}{{name}} {{sku}} x{{qty}} {{price}} = {{total}}{{#options}} {{label}}: {{value}}{{/options}}" +
      "{{#discount}} {{label}} -{{amount}}{{/discount}}\n{{/items}}Total {{order.total}}\n",
  };
  const renderer = createRequire(import.meta.url)("./bounded-mustache.cjs") as {
    renderParts(parts: TemplateParts, model: unknown, budget: { maxOutput: number; maxSteps: number }): TemplateParts;
  };
  const fits = (maxSteps: number) => {
    try {
      renderer.renderParts(receipt, model, { maxOutput: FULL_BUDGET.maxOutput, maxSteps });
      return true;
    } catch {
      return false;
    }
  };

  it("a receipt of 50 line items with nested sections takes about 5,700 steps: on the event loop, and 50 times within the full budget", async () => {
    expect(fits(5_000)).toBe(false);
    expect(fits(6_000)).toBe(true);
    expect(fits(SMALL_BUDGET.maxSteps)).toBe(true);
    expect(FULL_BUDGET.maxSteps).toBeGreaterThanOrEqual(50 * 6_000);
    const out = await rendered(receipt, model);
    expect(out.html).toContain("<td>Item 49</td>");
    expect(out.text).toContain("Item 0 SKU-0 x2 9.99 = 19.98 Size: M Colour: Blue 10% off -2.00\n");
  });

  it("counts a name looked up inside nested sections once per enclosing section: 60 nested sections cost 60 times one", () => {
    const nested = (depth: number) => ({ subject: "s", text: `${"{{#a}}".repeat(depth)}${"{{m}}".repeat(100)}${"{{/a}}".repeat(depth)}` });
    const stepsOf = (parts: TemplateParts) => {
      let lo = 1;
      let hi = 1_000_000;
      while (lo < hi) {
        const mid = Math.floor((lo + hi) / 2);
        try {
          renderer.renderParts(parts, { a: [1] }, { maxOutput: 1_000_000, maxSteps: mid });
          hi = mid;
        } catch {
          lo = mid + 1;
        }
      }
      return lo;
    };
    expect(stepsOf(nested(60))).toBeGreaterThan(100 * 60);
    expect(stepsOf(nested(1))).toBeLessThan(100 * 4);
  });
});

/**
 * StrippedTextReply (docs/contract.md §13.4): the reply without the text it
 * quotes. Line-based and linear: the text is cut at the first line that
 * opens the quoted part: a `>` quote, an attribution line ("On … wrote:",
 * possibly wrapped over two lines), or Outlook's "-----Original Message-----"
 * / "From: " block after a blank line. Only the first `MAX_CHARS` are read.
 */

export const MAX_CHARS = 256 * 1024;

function opensQuote(line: string, next: string | undefined): boolean {
  const t = line.trim();
  if (t.startsWith(">")) return true;
  if (t.startsWith("-----Original Message-----") || t.startsWith("________________________________")) return true;
  if (t.startsWith("On ") || t.startsWith("Le ") || t.startsWith("Am ") || t.startsWith("El ")) {
    if (t.endsWith("wrote:") || t.endsWith("a écrit :") || t.endsWith("a écrit:") || t.endsWith("schrieb:") || t.endsWith("escribió:")) return true;
    // Attribution wrapped by the client: "On Mon, 2 Mar 2026 at 10:00, Ann <ann@example.org>" / "wrote:".
    if (next !== undefined && next.trim().endsWith("wrote:") && next.trim().length < 80) return true;
  }
  return false;
}

export function strippedTextReply(text: string): string {
  const lines = text.slice(0, MAX_CHARS).split(/\r?\n/);
  const kept: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (opensQuote(lines[i]!, lines[i + 1])) break;
    kept.push(lines[i]!);
  }
  while (kept.length && kept[kept.length - 1]!.trim() === "") kept.pop();
  return kept.join("\n");
}

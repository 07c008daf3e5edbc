/**
 * The header's MessageID box: a plain GET form to /messages, which redirects
 * to the message's page, so it works before (and without) JavaScript.
 */
export function MessageSearch() {
  return (
    <form action="/messages" method="get" role="search" className="flex w-full max-w-xs items-center">
      <label htmlFor="header-message-id" className="sr-only">
        Find a message by MessageID
      </label>
      <input
        id="header-message-id"
        name="id"
        type="search"
        required
        placeholder="Paste a MessageID"
        autoComplete="off"
        spellCheck={false}
        className="h-9 w-full rounded-md border border-slate-300 bg-white px-3 font-mono text-xs text-slate-900 placeholder:font-sans placeholder:text-slate-500 focus-visible:outline-2 focus-visible:outline-brand-500 dark:border-slate-600 dark:bg-slate-900 dark:text-slate-100 dark:placeholder:text-slate-400"
      />
    </form>
  );
}

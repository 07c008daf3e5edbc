import { Card, CardHeader } from "@/components/ui/card";
import { Table, Td, Th } from "@/components/ui/table";

/** A message's header fields as a table, each value cut at 300 characters (the sandbox and inbound message views). */
export function HeadersCard({ title, headers }: { title: string; headers: readonly { name: string; value: string }[] }) {
  return (
    <Card>
      <CardHeader title={title} />
      <Table aria-label="Headers">
        <thead>
          <tr>
            <Th>Name</Th>
            <Th>Value</Th>
          </tr>
        </thead>
        <tbody>
          {headers.map((h, i) => (
            <tr key={i}>
              <Td className="whitespace-nowrap font-mono text-xs">{h.name}</Td>
              <Td className="break-all font-mono text-xs">{h.value.length > 300 ? `${h.value.slice(0, 300)}…` : h.value}</Td>
            </tr>
          ))}
        </tbody>
      </Table>
    </Card>
  );
}

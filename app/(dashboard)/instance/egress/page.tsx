import type { Metadata } from "next";
import { EmptyState } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { Table, Td, Th } from "@/components/ui/table";
import { egressViewAsOwner, requireEgressOwner } from "@/lib/dashboard/egress";
import { VolumeMeter } from "./_components/volume-meter";

export const metadata: Metadata = { title: "Egress" };
export const dynamic = "force-dynamic";

/** Egress addresses and their volume against their warm-up caps, for owners (docs/egress.md). */
export default async function EgressPage() {
  const owner = await requireEgressOwner();
  const { addresses, pools } = await egressViewAsOwner(owner);
  return (
    <div className="flex flex-col gap-6">
      <div>
        <h1 className="text-2xl font-bold tracking-tight">Egress</h1>
        <p className="text-sm text-slate-600 dark:text-slate-400">
          The source addresses direct-MX delivery sends from, by pool, with this hour&apos;s and today&apos;s copies against each address&apos;s warm-up caps per
          provider (UTC). Past a cap an address sends nothing more to that provider until the next hour or day: its mail goes from another address of the pool
          or waits. Declared with <code>mailroom egress add</code>, assigned with <code>mailroom egress assign</code>.
        </p>
      </div>
      {addresses.length === 0 ? (
        <EmptyState title="No egress address">Connections leave from the machine&apos;s own choice of source address, with the instance&apos;s EHLO name.</EmptyState>
      ) : (
        <Card>
          <CardHeader title="Addresses" description="Counts are written by the workers every 2 seconds." />
          <CardBody>
            <Table scrollLabel="Egress addresses">
              <thead>
                <tr>
                  <Th>Address</Th>
                  <Th>Pool</Th>
                  <Th>EHLO name</Th>
                  <Th>Warm-up</Th>
                  <Th>Provider</Th>
                  <Th>This hour</Th>
                  <Th>Today</Th>
                </tr>
              </thead>
              <tbody>
                {addresses.flatMap((a) => {
                  const rows = a.providers.length > 0 ? a.providers : [{ provider: "each provider", hour: 0, day: 0, hourlyCap: a.caps.hourly, dailyCap: a.caps.daily }];
                  return rows.slice(0, 20).map((p, i) => (
                    <tr key={`${a.address} ${p.provider}`} data-testid="egress-row">
                      <Td className="font-mono">{i === 0 ? a.address : ""}</Td>
                      <Td>{i === 0 ? a.pool : ""}</Td>
                      <Td className="font-mono">{i === 0 ? a.ehloName : ""}</Td>
                      <Td>{i === 0 ? a.warm ? <Badge tone="success">warm</Badge> : <Badge tone="info">{`day ${a.warmupDay}`}</Badge> : ""}</Td>
                      <Td className={a.providers.length > 0 ? "font-mono" : "text-slate-500"}>{p.provider}</Td>
                      <Td>
                        <VolumeMeter used={p.hour} cap={p.hourlyCap} label={`${a.address} to ${p.provider} this hour`} />
                      </Td>
                      <Td>
                        <VolumeMeter used={p.day} cap={p.dailyCap} label={`${a.address} to ${p.provider} today`} />
                      </Td>
                    </tr>
                  ));
                })}
              </tbody>
            </Table>
          </CardBody>
        </Card>
      )}
      <Card>
        <CardHeader title="Pools" description="An account without an assignment sends from the default pool." />
        <CardBody>
          <Table scrollLabel="Egress pools">
            <thead>
              <tr>
                <Th>Pool</Th>
                <Th>Addresses</Th>
                <Th>Accounts assigned</Th>
              </tr>
            </thead>
            <tbody>
              {pools.map((p) => (
                <tr key={p.name} data-testid="egress-pool-row">
                  <Td className="font-mono">{p.name}</Td>
                  <Td>{p.addresses}</Td>
                  <Td>{p.name === "default" ? `${p.accounts} (and every account not assigned)` : p.accounts}</Td>
                </tr>
              ))}
            </tbody>
          </Table>
        </CardBody>
      </Card>
    </div>
  );
}

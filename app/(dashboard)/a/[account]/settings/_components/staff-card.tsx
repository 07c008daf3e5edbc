"use client";

import { useState } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { ConfirmButton } from "@/components/ui/confirm-dialog";
import { Field, Input, Select } from "@/components/ui/input";
import { Table, Td, Th } from "@/components/ui/table";
import { ROLES } from "@/lib/auth/roles";
import { addStaffAction, changeStaffRoleAction, removeStaffAction } from "../actions";
import { formatIso, useSettingsAction } from "./use-action";

export interface StaffView {
  email: string;
  name: string;
  role: string;
  lastLoginAt: string | null;
}

export function StaffCard({ users, currentEmail }: { users: StaffView[]; currentEmail: string }) {
  const { run, error, pending, accountId } = useSettingsAction();
  const [formKey, setFormKey] = useState(0);
  // A refused role change puts the select back to the stored role.
  const [resets, setResets] = useState(0);
  const admins = users.filter((u) => u.role === "admin").length;
  return (
    <Card id="staff" data-testid="staff">
      <CardHeader
        title="Members"
        description="Staff who may open this account, with their role in it. admin: everything; support: events, messages, compose, sandbox; marketing: overview and events."
      />
      <CardBody className="flex flex-col gap-4">
        <form
          key={formKey}
          className="grid grid-cols-1 items-end gap-3 sm:grid-cols-2 lg:grid-cols-[1fr_1fr_10rem_1fr_auto]"
          onSubmit={async (e) => {
            e.preventDefault();
            const data = new FormData(e.currentTarget);
            const input = {
              email: String(data.get("email") ?? ""),
              name: String(data.get("name") ?? ""),
              role: String(data.get("role") ?? ""),
              password: String(data.get("password") ?? ""),
            };
            if (await run(() => addStaffAction(accountId, input))) setFormKey((k) => k + 1);
          }}
        >
          <Field id="staff-email" label="Email">
            <Input id="staff-email" name="email" type="email" required autoComplete="off" />
          </Field>
          <Field id="staff-name" label="Name (optional)">
            <Input id="staff-name" name="name" autoComplete="off" />
          </Field>
          <Field id="staff-role" label="Role">
            <Select id="staff-role" name="role" defaultValue="support">
              {ROLES.map((r) => (
                <option key={r} value={r}>
                  {r}
                </option>
              ))}
            </Select>
          </Field>
          <Field id="staff-password" label="Initial password">
            <Input id="staff-password" name="password" type="password" minLength={8} required autoComplete="new-password" />
          </Field>
          <Button type="submit" disabled={pending}>
            Add user
          </Button>
        </form>
        {error && <Alert tone="error" title="Not done">{error}</Alert>}
        <Table aria-label="Staff users">
          <thead>
            <tr>
              <Th>Email</Th>
              <Th className="hidden sm:table-cell">Name</Th>
              <Th>Role</Th>
              <Th className="hidden md:table-cell">Last sign-in (UTC)</Th>
              <Th className="relative">
                <span className="sr-only">Actions</span>
              </Th>
            </tr>
          </thead>
          <tbody>
            {users.map((u) => {
              const isLastAdmin = u.role === "admin" && admins <= 1;
              return (
                <tr key={u.email} data-testid="staff-row" data-email={u.email}>
                  <Td className="break-all">
                    {u.email}
                    {u.email === currentEmail && <span className="ml-1 text-xs text-slate-500 dark:text-slate-400">(you)</span>}
                  </Td>
                  <Td className="hidden sm:table-cell">{u.name}</Td>
                  <Td className="relative">
                    <label className="sr-only" htmlFor={`role-${u.email}`}>
                      Role of {u.email}
                    </label>
                    <Select
                      key={`${u.role}-${resets}`}
                      id={`role-${u.email}`}
                      className="w-32"
                      defaultValue={u.role}
                      disabled={pending}
                      onChange={async (e) => {
                        if (!(await run(() => changeStaffRoleAction(accountId, { email: u.email, role: e.target.value })))) setResets((n) => n + 1);
                      }}
                    >
                      {ROLES.map((r) => (
                        <option key={r} value={r}>
                          {r}
                        </option>
                      ))}
                    </Select>
                  </Td>
                  <Td className="hidden whitespace-nowrap md:table-cell">{u.lastLoginAt ? formatIso(u.lastLoginAt) : "never"}</Td>
                  <Td className="text-right">
                    <ConfirmButton
                      label="Remove"
                      title={`Remove ${u.email}?`}
                      confirmLabel="Remove the user"
                      onConfirm={async () => void (await run(() => removeStaffAction(accountId, u.email)))}
                    >
                      <p>
                        {u.email} can no longer sign in; a session that is open ends at its next request.
                        {isLastAdmin && " This is the last admin: the removal will be refused until another admin exists."}
                      </p>
                    </ConfirmButton>
                  </Td>
                </tr>
              );
            })}
          </tbody>
        </Table>
        <p className="text-xs text-slate-600 dark:text-slate-400">There is always at least one admin: removing or demoting the last one is refused.</p>
      </CardBody>
    </Card>
  );
}

"use client";

import { useState } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { ConfirmButton } from "@/components/ui/confirm-dialog";
import { Field, Input, Select } from "@/components/ui/input";
import { Table, Td, Th } from "@/components/ui/table";
import { ROLES } from "@/lib/auth/roles";
import { addStaffAction, changeStaffRoleAction, removeStaffAction, revokeInvitationAction } from "../actions";
import { formatIso, useSettingsAction } from "./use-action";

export interface StaffView {
  email: string;
  name: string;
  role: string;
  lastLoginAt: string | null;
}

export interface InvitationRowView {
  id: string;
  email: string;
  role: string;
  expiresAt: string;
  expired: boolean;
}

/**
 * The account's members and pending invitations (ADR 0512). An account
 * admin invites by email (the same answer whatever the address); an owner
 * may also add at once, with an initial password for a new user.
 */
export function StaffCard({
  users,
  invitations,
  currentEmail,
  isOwner,
}: {
  users: StaffView[];
  invitations: InvitationRowView[];
  currentEmail: string;
  isOwner: boolean;
}) {
  const { run, error, pending, accountId } = useSettingsAction();
  const [formKey, setFormKey] = useState(0);
  const [notice, setNotice] = useState<string | null>(null);
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
          className={`grid grid-cols-1 items-end gap-3 sm:grid-cols-2 ${isOwner ? "lg:grid-cols-[1fr_1fr_10rem_1fr_auto]" : "lg:grid-cols-[1fr_10rem_auto]"}`}
          onSubmit={async (e) => {
            e.preventDefault();
            setNotice(null);
            const data = new FormData(e.currentTarget);
            const password = String(data.get("password") ?? "");
            const input = {
              email: String(data.get("email") ?? ""),
              name: String(data.get("name") ?? ""),
              role: String(data.get("role") ?? ""),
              ...(password && { password }),
            };
            const done = await run(() => addStaffAction(accountId, input));
            if (done) {
              setNotice(done.data.message);
              setFormKey((k) => k + 1);
            }
          }}
        >
          <Field id="staff-email" label="Email">
            <Input id="staff-email" name="email" type="email" required autoComplete="off" />
          </Field>
          {isOwner && (
            <Field id="staff-name" label="Name (optional)">
              <Input id="staff-name" name="name" autoComplete="off" />
            </Field>
          )}
          <Field id="staff-role" label="Role">
            <Select id="staff-role" name="role" defaultValue="support">
              {ROLES.map((r) => (
                <option key={r} value={r}>
                  {r}
                </option>
              ))}
            </Select>
          </Field>
          {isOwner && (
            <Field id="staff-password" label="Initial password (owners)">
              <Input id="staff-password" name="password" type="password" minLength={8} autoComplete="new-password" />
            </Field>
          )}
          <Button type="submit" disabled={pending}>
            {isOwner ? "Add user" : "Invite"}
          </Button>
        </form>
        <p className="text-xs text-slate-600 dark:text-slate-400">
          {isOwner
            ? "As an owner you add an existing user at once, or a new one with an initial password; without a password, an invitation is emailed."
            : "An invitation is emailed; the person becomes a member once they accept it (the link works once, for 7 days)."}
        </p>
        {notice && (
          <Alert tone="info" title="Done">
            <span data-testid="staff-notice">{notice}</span>
          </Alert>
        )}
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
        {invitations.length > 0 && (
          <Table aria-label="Pending invitations">
            <thead>
              <tr>
                <Th>Invited</Th>
                <Th>Role</Th>
                <Th className="hidden md:table-cell">Expires (UTC)</Th>
                <Th className="relative">
                  <span className="sr-only">Actions</span>
                </Th>
              </tr>
            </thead>
            <tbody>
              {invitations.map((i) => (
                <tr key={i.id} data-testid="invitation-row" data-email={i.email}>
                  <Td className="break-all">{i.email}</Td>
                  <Td>{i.role}</Td>
                  <Td className="hidden whitespace-nowrap md:table-cell">{i.expired ? "expired" : formatIso(i.expiresAt)}</Td>
                  <Td className="text-right">
                    <ConfirmButton
                      label="Revoke"
                      title={`Revoke the invitation of ${i.email}?`}
                      confirmLabel="Revoke the invitation"
                      onConfirm={async () => void (await run(() => revokeInvitationAction(accountId, i.id)))}
                    >
                      <p>The link sent to {i.email} stops working.</p>
                    </ConfirmButton>
                  </Td>
                </tr>
              ))}
            </tbody>
          </Table>
        )}
        <p className="text-xs text-slate-600 dark:text-slate-400">There is always at least one admin: removing or demoting the last one is refused.</p>
      </CardBody>
    </Card>
  );
}

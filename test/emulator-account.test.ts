/**
 * Emulator handlers of the account areas, part one: the auth layer and notifications with their
 * recipients, driven through the real client over HTTPS (part two: test/emulator-account-admin.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { AuthenticationError, BadRequestError, InputError, NotFoundError, PermissionDeniedError, collect } from '../src/client/index.js';
import { em, admin, member, scoped, bogus, snapshot, rejection, rejectsUnchanged, useAccountEmulator } from './support/account-fixture.js';

useAccountEmulator();

describe('auth layer on the account endpoints', () => {
  it('answers 401 for an unknown key and 403 for a member on an admin-only endpoint', async () => {
    const e401 = await rejection(bogus.users.me(), AuthenticationError, 401);
    expect(e401.platformMessage).toContain('unknown API key');
    const e403 = await rejectsUnchanged(() => member.usageAnalytics.createToken(), PermissionDeniedError, 403);
    expect(e403.platformMessage).toContain('needs the admin role');
  });
});

describe('notifications', () => {
  const ids = (page: { items: { id: number }[] }) => page.items.map((n) => n.id);

  it('is admin only', async () => {
    await rejectsUnchanged(() => member.notifications.list({ deploymentId: 1 }), PermissionDeniedError, 403);
  });

  it('lists newest first, without recipients', async () => {
    const page = await admin.notifications.list({ deploymentId: 1 });
    expect(ids(page)).toEqual([1, 2, 3, 4, 5]);
    expect(page.items[0]).not.toHaveProperty('recipients');
    expect(page.pageInfo?.hasNextPage).toBe(false);
    expect((await admin.notifications.list({ deploymentId: 2 })).items).toEqual([]);
  });

  it('applies every filter', async () => {
    const list = (query: Record<string, unknown>) => admin.notifications.list({ deploymentId: 1, query });
    expect(ids(await list({ dashboardId: 2 }))).toEqual([1, 4]);
    expect(ids(await list({ dashboardPublicId: 'wb-pub-3' }))).toEqual([2, 5]);
    expect(ids(await list({ dashboardPublicId: 'wb-pub-none' }))).toEqual([]);
    expect(ids(await list({ recipientUserId: 2 }))).toEqual([1, 3, 5]);
    expect(ids(await list({ recipientEmail: 'MAX@example.com' }))).toEqual([1, 3, 5]);
    expect(ids(await list({ recipientEmail: 'buyer@acme.example' }))).toEqual([]); // an embed user, not a user
    expect(ids(await list({ recipientEmbedTenantName: 'acme', recipientExternalId: 'ext-42' }))).toEqual([3]);
    expect(ids(await list({ recipientEmbedTenantName: 'acme', recipientExternalId: 'ext-0' }))).toEqual([]);
    expect(ids(await list({ dashboardId: 2, recipientUserId: 2 }))).toEqual([1]);
  });

  it('rejects conflicting filters (client before sending, emulator with 400)', async () => {
    await expect(admin.notifications.list({ deploymentId: 1, query: { dashboardId: 1, dashboardPublicId: 'wb-pub-1' } })).rejects.toBeInstanceOf(InputError);
    const before = snapshot();
    await rejection(admin.http.send({ method: 'GET', path: '/api/v1/deployments/1/notifications?recipientEmbedTenantName=acme' }), BadRequestError, 400);
    await rejection(
      admin.http.send({ method: 'GET', path: '/api/v1/deployments/1/notifications?recipientUserId=1&recipientEmail=ada%40example.com' }),
      BadRequestError,
      400,
    );
    expect(snapshot()).toBe(before);
  });

  it('pages to the end with first/after', async () => {
    const p1 = await admin.notifications.list({ deploymentId: 1, query: { first: 2 } });
    expect(ids(p1)).toEqual([1, 2]);
    expect(p1.pageInfo?.hasNextPage).toBe(true);
    const p2 = await admin.notifications.list({ deploymentId: 1, query: { first: 2, after: p1.pageInfo?.endCursor ?? undefined } });
    expect(ids(p2)).toEqual([3, 4]);
    const p3 = await admin.notifications.list({ deploymentId: 1, query: { first: 2, after: p2.pageInfo?.endCursor ?? undefined } });
    expect(ids(p3)).toEqual([5]);
    expect(p3.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true });
    const all = await collect(admin.notifications.iterate({ deploymentId: 1, query: { first: 2 } }));
    expect(all.map((n) => n.id)).toEqual([1, 2, 3, 4, 5]);
  });

  let byId = 0;
  let byPublicId = 0;

  it('creates by dashboardId or by dashboardPublicId, newest first afterwards', async () => {
    em.clock.advance(1000);
    const a = await admin.notifications.create({
      deploymentId: 1,
      body: { dashboardId: 1, scheduleType: 'DAILY', hour: 8, minute: 30, timezone: 'Europe/Paris', notificationFormat: 'pdf' },
    });
    byId = a.id;
    expect(a).toMatchObject({
      dashboardId: 1,
      dashboardPublicId: 'wb-pub-1',
      deploymentId: 1,
      cronExpression: '30 8 * * *',
      humanReadableSchedule: 'At 08:30, every day',
      timezone: 'Europe/Paris',
      isEnabled: true,
      notificationEnabled: true,
      notificationFormat: 'pdf',
      notificationAiSummary: false,
    });
    em.clock.advance(1000);
    const b = await admin.notifications.create({
      deploymentId: 1,
      body: { dashboardPublicId: 'wb-pub-2', scheduleType: 'CUSTOM', customCron: '0 7 * * 1-5', notificationAiSummary: true },
    });
    byPublicId = b.id;
    expect(b).toMatchObject({ dashboardId: 2, dashboardPublicId: 'wb-pub-2', cronExpression: '0 7 * * 1-5', timezone: 'UTC', notificationAiSummary: true });
    expect(b.humanReadableSchedule).toBe('At 07:00, Monday through Friday');
    expect(b).not.toHaveProperty('recipients');
    expect(ids(await admin.notifications.list({ deploymentId: 1, query: { first: 2 } }))).toEqual([byPublicId, byId]);
    expect(ids(await admin.notifications.list({ deploymentId: 1, query: { dashboardPublicId: 'wb-pub-1' } }))).toEqual([byId, 3]);
    expect(await admin.notifications.get({ deploymentId: 1, id: byId })).toEqual(a);
  });

  it('rejects an unknown dashboard, a bad cron and a bad time zone without changing anything', async () => {
    const e = await rejectsUnchanged(
      () => admin.notifications.create({ deploymentId: 1, body: { dashboardId: 99, scheduleType: 'DAILY' } }),
      NotFoundError,
      404,
    );
    expect(e.platformMessage).toContain('dashboard 99 not found');
    // Dashboards belong to deployment 1 only.
    await rejectsUnchanged(() => admin.notifications.create({ deploymentId: 2, body: { dashboardId: 1, scheduleType: 'DAILY' } }), NotFoundError, 404);
    await rejectsUnchanged(
      () => admin.notifications.create({ deploymentId: 1, body: { dashboardId: 1, scheduleType: 'CUSTOM', customCron: 'every day' } }),
      BadRequestError,
      400,
    );
    await rejectsUnchanged(
      () => admin.notifications.create({ deploymentId: 1, body: { dashboardId: 1, scheduleType: 'DAILY', hour: 24 } }),
      BadRequestError,
      400,
    );
    await rejectsUnchanged(
      () => admin.notifications.create({ deploymentId: 1, body: { dashboardId: 1, scheduleType: 'DAILY', timezone: 'Mars/Olympus' } }),
      BadRequestError,
      400,
    );
  });

  it('updates the schedule and keeps omitted fields', async () => {
    const u = await admin.notifications.update({
      deploymentId: 1,
      id: byId,
      body: { scheduleType: 'WEEKLY', hour: 9, minute: 0, dayOfWeek: 1, isEnabled: false },
    });
    expect(u).toMatchObject({
      cronExpression: '0 9 * * 1',
      humanReadableSchedule: 'At 09:00, only on Monday',
      isEnabled: false,
      timezone: 'Europe/Paris',
      notificationFormat: 'pdf',
    });
    // A seeded notification (a cron expression, no schedule inputs): other fields change alone;
    // an hour without a schedule type would be ambiguous.
    const seeded = await admin.notifications.update({ deploymentId: 1, id: 1, body: { filters: null } });
    expect(seeded.filters).toBeNull();
    expect(seeded.cronExpression).toBe('0 7 * * 1-5');
    await rejectsUnchanged(() => admin.notifications.update({ deploymentId: 1, id: 1, body: { hour: 9 } }), BadRequestError, 400);
    const daily = await admin.notifications.update({ deploymentId: 1, id: 1, body: { scheduleType: 'DAILY', hour: 9 } });
    expect(daily).toMatchObject({ cronExpression: '0 9 * * *', humanReadableSchedule: 'At 09:00, every day' });
    await rejectsUnchanged(
      () => admin.notifications.update({ deploymentId: 1, id: 1, body: { scheduleType: 'CUSTOM', customCron: null } }),
      BadRequestError,
      400,
    );
    await rejectsUnchanged(() => admin.notifications.update({ deploymentId: 1, id: 999, body: { isEnabled: true } }), NotFoundError, 404);
  });

  it('adds, lists and removes recipients', async () => {
    const seeded = await admin.notifications.recipients({ deploymentId: 1, id: 3 });
    expect(seeded.items.map((r) => r.type)).toEqual(['EMBED_USER', 'USER', 'USER']); // newest first

    const added = await admin.notifications.addRecipients({
      deploymentId: 1,
      id: byId,
      body: {
        recipients: [
          { type: 'USER', userId: 4 },
          { type: 'USER', email: 'max@example.com' },
          { type: 'EMBED_USER', embedTenantName: 'acme', externalId: 'ext-7', email: 'a@acme.example' },
          { type: 'SLACK', channelId: 'C01', channelName: '#revenue' },
        ],
      },
    });
    expect(added.createdRecipients).toEqual([
      { type: 'USER', userId: 4, email: 'lin@example.com', username: 'lin' },
      { type: 'USER', userId: 2, email: 'max@example.com', username: 'max' },
      { type: 'EMBED_USER', embedTenantName: 'acme', externalId: 'ext-7', email: 'a@acme.example' },
      { type: 'SLACK', channelId: 'C01', channelName: '#revenue' },
    ]);
    expect(added.updatedRecipients).toEqual([]);

    const again = await admin.notifications.addRecipients({
      deploymentId: 1,
      id: byId,
      body: {
        recipients: [
          { type: 'USER', userId: 4 },
          { type: 'EMBED_USER', embedTenantName: 'acme', externalId: 'ext-7', email: 'b@acme.example' },
        ],
      },
    });
    expect(again.createdRecipients).toEqual([]);
    expect(again.unchangedRecipients.map((r) => r.userId)).toEqual([4]);
    expect(again.updatedRecipients).toEqual([{ type: 'EMBED_USER', embedTenantName: 'acme', externalId: 'ext-7', email: 'b@acme.example' }]);

    const listed = await collect(admin.notifications.iterateRecipients({ deploymentId: 1, id: byId, query: { first: 3 } }));
    expect(listed.map((r) => r.type)).toEqual(['SLACK', 'EMBED_USER', 'USER', 'USER']);
    expect(ids(await admin.notifications.list({ deploymentId: 1, query: { recipientUserId: 4 } }))).toEqual([byId]);
    expect(ids(await admin.notifications.list({ deploymentId: 1, query: { recipientEmbedTenantName: 'acme', recipientExternalId: 'ext-7' } }))).toEqual([byId]);

    // An unknown user anywhere in the batch rejects the whole batch.
    await rejectsUnchanged(
      () =>
        admin.notifications.addRecipients({
          deploymentId: 1,
          id: byId,
          body: {
            recipients: [
              { type: 'SLACK', channelId: 'C02' },
              { type: 'USER', userId: 99 },
            ],
          },
        }),
      NotFoundError,
      404,
    );
    await rejectsUnchanged(
      () => admin.notifications.addRecipients({ deploymentId: 1, id: byId, body: { recipients: [{ type: 'EMBED_USER', externalId: 'x' }] } }),
      BadRequestError,
      400,
    );

    await admin.notifications.removeRecipients({
      deploymentId: 1,
      id: byId,
      body: {
        recipients: [
          { type: 'USER', id: 4 },
          { type: 'SLACK', id: 'C01' },
          { type: 'USER', id: 77 }, // not subscribed: ignored
        ],
      },
    });
    const left = await admin.notifications.recipients({ deploymentId: 1, id: byId });
    expect(left.items.map((r) => [r.type, r.userId ?? r.externalId])).toEqual([
      ['EMBED_USER', 'ext-7'],
      ['USER', 2],
    ]);
    await rejectsUnchanged(
      () => admin.notifications.removeRecipients({ deploymentId: 1, id: byId, body: { recipients: [{ type: 'EMBED_USER', id: 'ext-7' }] } }),
      BadRequestError,
      400,
    );
    await admin.notifications.removeRecipients({
      deploymentId: 1,
      id: byId,
      body: { recipients: [{ type: 'EMBED_USER', id: 'ext-7', embedTenantName: 'acme' }] },
    });
    expect((await admin.notifications.recipients({ deploymentId: 1, id: byId })).items).toHaveLength(1);
  });

  it('deletes a notification and its recipients', async () => {
    await admin.notifications.remove({ deploymentId: 1, id: byPublicId });
    await rejection(admin.notifications.get({ deploymentId: 1, id: byPublicId }), NotFoundError, 404);
    await rejection(admin.notifications.recipients({ deploymentId: 1, id: byPublicId }), NotFoundError, 404);
    // The scoped key (deployment 1 only) cannot reach deployment 2.
    await rejection(scoped.notifications.list({ deploymentId: 2 }), PermissionDeniedError, 403);
  });
});

// =============================================================================================

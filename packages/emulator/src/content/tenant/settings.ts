/** Tenant settings: audit log, support access, maintenance window and interface switches. */
import type { TenantSettings } from '../../account/models.js';
import { HttpError, type HandlerTable } from '../../context.js';
import type { State } from '../../state.js';

const WEEKDAYS = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'];

function tenantSettingsOut(state: State) {
  const s = state.tenant.settings;
  return {
    auditLogEnabled: state.tenant.auditLogEnabled,
    auditLogEnabledCurrent: state.tenant.auditLogEnabled,
    auditLogEnabledTimestamp: s.auditLogEnabledTimestamp ?? 0,
    hasSupportAccess: s.hasSupportAccess ?? false,
    maintenanceWindowDay: s.maintenanceWindowDay ?? 'SUNDAY',
    maintenanceWindowEnabled: s.maintenanceWindowEnabled ?? false,
    maintenanceWindowTime: s.maintenanceWindowTime ?? '02:00',
    oidcEnabled: s.oidcEnabled ?? false,
    useAIBIUserInterface: s.useAIBIUserInterface ?? false,
  };
}

export const tenantSettingsHandlers: HandlerTable = {
  getTenantSettings(ctx) {
    return tenantSettingsOut(ctx.state);
  },

  updateTenantSettings(ctx) {
    const body = ctx.body as {
      auditLogEnabled?: boolean | null;
      hasSupportAccess?: boolean | null;
      maintenanceWindowDay?: string | null;
      maintenanceWindowEnabled?: boolean | null;
      maintenanceWindowTime?: string | null;
      oidcEnabled?: boolean | null;
      useAIBIUserInterface?: boolean | null;
    };
    const day = body.maintenanceWindowDay?.trim().toUpperCase();
    if (day != null && !WEEKDAYS.includes(day)) {
      throw new HttpError(400, `body.maintenanceWindowDay: got ${JSON.stringify(body.maintenanceWindowDay)}, expected one of ${WEEKDAYS.join(', ')}`);
    }
    if (body.maintenanceWindowTime != null && !/^([01]\d|2[0-3]):[0-5]\d$/.test(body.maintenanceWindowTime)) {
      throw new HttpError(400, `body.maintenanceWindowTime: got ${JSON.stringify(body.maintenanceWindowTime)}, expected HH:MM (24-hour, UTC)`);
    }
    const { tenant } = ctx.state;
    if (body.auditLogEnabled != null && body.auditLogEnabled !== tenant.auditLogEnabled) {
      tenant.auditLogEnabled = body.auditLogEnabled;
      tenant.settings.auditLogEnabledTimestamp = ctx.clock.now();
    }
    const patch: Partial<Record<keyof TenantSettings, string | boolean | null>> = {
      hasSupportAccess: body.hasSupportAccess,
      maintenanceWindowDay: day,
      maintenanceWindowEnabled: body.maintenanceWindowEnabled,
      maintenanceWindowTime: body.maintenanceWindowTime,
      oidcEnabled: body.oidcEnabled,
      useAIBIUserInterface: body.useAIBIUserInterface,
    };
    for (const [k, v] of Object.entries(patch)) if (v != null) Object.assign(tenant.settings, { [k]: v });
    return tenantSettingsOut(ctx.state);
  },
};

/** Where a report's result sits in an external spreadsheet: addresses, lookups, new placements and their answer. */
import type { Ctx } from '../../context.js';
import { base62 } from '../fields.js';
import type { PlacementRec, ReportRec } from '../models.js';

/** `'Sheet 1'!B2` or `Sheet1!B2:D9` -> sheet name and anchor. */
export function parseResultLocation(loc: string | null | undefined): { sheetName: string; anchorCell: string } | undefined {
  if (!loc) return undefined;
  const m = /^(?:'((?:[^']|'')+)'|([^!]+))!\$?([A-Za-z]+)\$?(\d+)(?::.*)?$/.exec(loc.trim());
  if (!m) return undefined;
  return { sheetName: (m[1] ?? m[2] ?? '').replace(/''/g, "'"), anchorCell: `${(m[3] as string).toUpperCase()}${m[4]}` };
}

export interface PlacementAddress {
  placementId?: string | null;
  externalWorkbookId?: string | null;
  resultLocation?: string | null;
  sheetId?: string | null;
  sheetName?: string | null;
  anchorCell?: string | null;
}

/** The placement an address names: by id, or by workbook + sheet name + anchor (sheetId narrows). */
export function findPlacement(r: ReportRec, a: PlacementAddress): PlacementRec | undefined {
  if (a.placementId) return r.placements.find((p) => p.id === a.placementId);
  if (!a.externalWorkbookId) return undefined;
  const parsed = parseResultLocation(a.resultLocation);
  const sheetName = a.sheetName ?? parsed?.sheetName;
  const anchor = (a.anchorCell ?? parsed?.anchorCell)?.toUpperCase();
  if (!sheetName || !anchor) return undefined;
  return r.placements.find(
    (p) =>
      p.externalWorkbookId === a.externalWorkbookId &&
      p.sheetName === sheetName &&
      p.anchorCell?.toUpperCase() === anchor &&
      (!a.sheetId || p.sheetId === a.sheetId),
  );
}

export function addressGiven(a: PlacementAddress): boolean {
  return !!(a.placementId || a.externalWorkbookId || a.resultLocation || a.sheetId || a.sheetName || a.anchorCell);
}

/** A placement of `r` by the caller, now. */
export function newPlacement(
  ctx: Ctx,
  r: ReportRec,
  a: {
    externalWorkbookId: string;
    resultLocation: string;
    host?: string | null;
    sheetId?: string | null;
    sheetName?: string | null;
    anchorCell?: string | null;
    endResultCell?: string | null;
    workbookName?: string | null;
    resultChecksum?: unknown;
  },
): PlacementRec {
  const parsed = parseResultLocation(a.resultLocation);
  return {
    id: `pl-${r.id}-${base62(8)}`,
    externalWorkbookId: a.externalWorkbookId,
    resultLocation: a.resultLocation,
    host: a.host ?? null,
    sheetId: a.sheetId ?? null,
    sheetName: a.sheetName ?? parsed?.sheetName ?? null,
    anchorCell: (a.anchorCell ?? parsed?.anchorCell)?.toUpperCase() ?? null,
    endResultCell: a.endResultCell ?? null,
    workbookName: a.workbookName ?? null,
    placedAt: ctx.clock.iso(),
    placedByUserId: ctx.principal.user.id,
    refreshedAt: null,
    refreshedByUserId: null,
    resultChecksum: a.resultChecksum ?? null,
  };
}

export function placementOut(p: PlacementRec) {
  return {
    id: p.id,
    workbookId: p.externalWorkbookId,
    resultLocation: p.resultLocation,
    host: p.host,
    sheetId: p.sheetId,
    sheetName: p.sheetName,
    anchorCell: p.anchorCell,
    endResultCell: p.endResultCell,
    workbookName: p.workbookName,
    placedAt: p.placedAt,
    placedByUserId: p.placedByUserId,
    refreshedAt: p.refreshedAt,
    refreshedByUserId: p.refreshedByUserId,
    resultChecksum: p.resultChecksum ?? null,
  };
}

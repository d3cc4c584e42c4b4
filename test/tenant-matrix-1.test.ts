/** The tenant matrix (test/support/tenant-matrix.ts), shard 1 of 3: rows 1, 4, 7, … */
import { tenantMatrixShard } from './support/tenant-matrix.js';

tenantMatrixShard(0, 3);

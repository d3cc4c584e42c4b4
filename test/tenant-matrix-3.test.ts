/** The tenant matrix (test/support/tenant-matrix.ts), shard 3 of 3: rows 3, 6, 9, … */
import { tenantMatrixShard } from './support/tenant-matrix.js';

tenantMatrixShard(2, 3);

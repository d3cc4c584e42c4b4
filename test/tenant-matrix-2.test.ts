/** The tenant matrix (test/support/tenant-matrix.ts), shard 2 of 3: rows 2, 5, 8, … */
import { tenantMatrixShard } from './support/tenant-matrix.js';

tenantMatrixShard(1, 3);

import { securitySuite } from '../../../../test/support/security-suite.ts';
import { security } from './security.ts';

securitySuite(security);

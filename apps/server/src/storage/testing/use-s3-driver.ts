import { useS3Driver } from './driver-choice.ts';

// Imported before storage.test.ts, so its suite runs against S3 (decision 022).
useS3Driver();

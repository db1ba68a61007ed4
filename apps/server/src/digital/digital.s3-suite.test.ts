// The digital releases suite again with STORAGE_URL=s3://... against s3rver: masters through
// S3 multipart uploads, encoded files, ranged previews and downloads from the bucket.
import '../storage/testing/use-s3-driver.ts';
import './digital.test.ts';

// The streamed-master suite again with STORAGE_URL=s3://... against s3rver: the parts of the
// resumable upload assembled in the bucket, streamed to a file for the check and back.
import '../storage/testing/use-s3-driver.ts';
import './digital-masters.test.ts';

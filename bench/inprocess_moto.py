"""Worker preload for the benchmark: in-process moto, so AWS calls cost the same in worker and baseline."""

from moto import mock_aws

mock_aws().start()

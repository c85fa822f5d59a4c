import sys

from deploy.multihost.run import main

sys.exit(main())

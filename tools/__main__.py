"""The course command, `./course` (and `python3 tools`, which runs this folder): coursecli.main."""

import sys

from coursecli.main import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
